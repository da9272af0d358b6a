// Custom-call targets for golden/ops/custom-call.golden with seed 001's
// ABI `extern "C" void target(void* out, void** in)`: one per element-type
// class that interpreter/ops/custom_call_test_lib.cc does not cover
// (unsigned, complex). A golden case names this library as
// `custom_call_library: golden_custom_call_lib`; the runner resolves the
// name to this build's .so (HLOREF_GOLDEN_CUSTOM_CALL_LIB), so golden
// files never name a path. Each target's rule is in its comment: the
// expected values of the cases are derived by hand from these rules.
#include <cstdint>

#define HLOREF_EXPORT extern "C" __attribute__((visibility("default")))

// u32[3] -> u32[3]: z[i] = a[i] + 1 modulo 2^32 (4294967295 wraps to 0).
HLOREF_EXPORT void u32_add_one3(void* out, void** in) {
  const uint32_t* a = static_cast<const uint32_t*>(in[0]);
  uint32_t* z = static_cast<uint32_t*>(out);
  for (int i = 0; i < 3; ++i) z[i] = a[i] + 1u;
}

// c64[2] -> c64[2]: the complex conjugate. A c64 element is two floats,
// real part first, so the buffer is re0 im0 re1 im1.
HLOREF_EXPORT void c64_conj2(void* out, void** in) {
  const float* a = static_cast<const float*>(in[0]);
  float* z = static_cast<float*>(out);
  for (int i = 0; i < 2; ++i) {
    z[2 * i] = a[2 * i];
    z[2 * i + 1] = -a[2 * i + 1];
  }
}

// (s8[2], u16[2]) -> s8[2]: in[0] is a tuple operand, passed as an array
// of two pointers; z[i] = a[i] - (int8_t)b[i] computed in 32-bit and
// truncated to 8 bits (two's complement wrap).
HLOREF_EXPORT void s8_minus_u16_tuple(void* out, void** in) {
  void** t = static_cast<void**>(in[0]);
  const int8_t* a = static_cast<const int8_t*>(t[0]);
  const uint16_t* b = static_cast<const uint16_t*>(t[1]);
  int8_t* z = static_cast<int8_t*>(out);
  for (int i = 0; i < 2; ++i) {
    z[i] = static_cast<int8_t>(static_cast<uint8_t>(
        static_cast<int32_t>(a[i]) - static_cast<int32_t>(b[i])));
  }
}
