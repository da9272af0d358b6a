// A shared library of custom-call targets with seed 001's ABI
// `extern "C" void target(void* out, void** in)`, loaded by
// custom_call_test.cc through EvaluatorOptions::custom_call_libraries.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#define HLOREF_EXPORT extern "C" __attribute__((visibility("default")))

// Seed 001's documented example: CustomCall("myfunc", {x, y}, f32[3x3])
// with x = f32[2] {1,2}, y = f32[2x3] {{10,20,30},{40,50,60}}. The seed
// checks the inputs with EXPECT_EQ (here: any mismatch fills the result
// with NaN) and shows z[0][0] = x[1] + y[1][0]; it elides the rest
// ("// ..."), which this library defines as
//   z[i][j] = x[(i+1) % 2] + y[(i+1) % 2][j].
HLOREF_EXPORT void myfunc(void* out, void** in) {
  float(&x)[2] = *static_cast<float(*)[2]>(in[0]);
  float(&y)[2][3] = *static_cast<float(*)[2][3]>(in[1]);
  float(&z)[3][3] = *static_cast<float(*)[3][3]>(out);
  const bool inputs_as_documented =
      x[0] == 1 && x[1] == 2 && y[0][0] == 10 && y[0][1] == 20 &&
      y[0][2] == 30 && y[1][0] == 40 && y[1][1] == 50 && y[1][2] == 60;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      z[i][j] = inputs_as_documented ? x[(i + 1) % 2] + y[(i + 1) % 2][j]
                                     : std::numeric_limits<float>::quiet_NaN();
    }
  }
}

// Tuples: in[0] is s32[3]; in[1] is a tuple (f64[], s32[]) passed as an
// array of two pointers; the result (s32[3], f64[]) is an array of two
// pointers: ({a[i] * k}, sum(a) + d).
HLOREF_EXPORT void tuple_scale_and_sum(void* out, void** in) {
  const int32_t* a = static_cast<const int32_t*>(in[0]);
  void** t = static_cast<void**>(in[1]);
  const double d = *static_cast<const double*>(t[0]);
  const int32_t k = *static_cast<const int32_t*>(t[1]);
  void** result = static_cast<void**>(out);
  int32_t* scaled = static_cast<int32_t*>(result[0]);
  double* sum = static_cast<double*>(result[1]);
  *sum = d;
  for (int i = 0; i < 3; ++i) {
    scaled[i] = a[i] * k;
    *sum += a[i];
  }
}

// Copies six f32 values in buffer order: shows the physical layout of the
// operand.
HLOREF_EXPORT void copy_six_floats(void* out, void** in) {
  std::memcpy(out, in[0], 6 * sizeof(float));
}

// Writes 0, 1, ..., 5 in buffer order into a six-element f32 result.
HLOREF_EXPORT void iota_six_floats(void* out, void** /*in*/) {
  float* z = static_cast<float*>(out);
  for (int i = 0; i < 6; ++i) z[i] = static_cast<float>(i);
}

// pred: negates each of four bytes.
HLOREF_EXPORT void not_pred4(void* out, void** in) {
  const uint8_t* a = static_cast<const uint8_t*>(in[0]);
  uint8_t* z = static_cast<uint8_t*>(out);
  for (int i = 0; i < 4; ++i) z[i] = a[i] ? 0 : 1;
}
